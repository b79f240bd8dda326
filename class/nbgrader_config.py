# nbgrader's configuration of the class's course (scripts/class copies it to ~instructor/course/):
# the Go stub and nbgrader's delimiters (see exercises/README.md), and a cell timeout generous
# enough for a fresh kernel that compiles each cell. The course id and the exchange folder come
# from the class's own configuration (.cache/class/config/instructor/nbgrader_config.py).
c = get_config()  # noqa: F821 (nbgrader's config loader defines it)
c.ClearSolutions.code_stub = {"go": '// YOUR CODE HERE\npanic("not implemented")'}
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
c.Execute.timeout = 300
# Every notebook autograde (and validate) runs, it runs in the grading sandbox: this kernel starts
# the Go kernel as an account of its own, never as the instructor (class/backofflab_class/grader.py).
c.Execute.kernel_name = "backofflab-go-grader"
