"""Backoff Lab's classroom: JupyterHub with one private account per learner, as an importable
package in JupyterHub's own style (scripts/class is its command line).

    cli         scripts/class: start and stop a class (standard library only)
    configgen   the generated jupyterhub_config.py, nbgrader's and the servers' configuration
    spawner     ClassSpawner, a LocalProcessSpawner configured with traitlets
    hooks       the spawner's pre-spawn and post-stop hooks
    zygote      the learners' servers forked from one preloaded process
    singleuser  a server on a listening socket the hub holds
    logrelay    each server's output into that learner's own log
    cells       the cell programs' daemon and its client (shared programs, build slots)
    gosrc       a cell's imports and module files, as the daemon reads them
    grader      autograde's kernels in a sandbox account
    exchange    nbgrader's submit, with submissions only their learner and the instructor can open
    homes       what the class puts into a home and takes out of it, as the home's owner
    limits      what one learner may use: processes and memory
    procs       finding and ending processes by account or mark, pid-reuse safe
    roster      the roster file

Every learner is a possible attacker: nothing privileged acts on a learner's files through a path
they control, and nothing writable is shared between accounts. The class tests
(internal/classroom) run each attack from a learner's own account; the pure parts have pytest
tests in class/tests.
"""
