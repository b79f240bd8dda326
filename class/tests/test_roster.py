import pytest

from backofflab_class import roster


def test_header_comments_and_display_names():
    text = 'username,display name\n# a comment\n\nada,Ada Lovelace\r\n  bob , "Doe, Bob"\ncy\n'
    assert roster.parse(text, "instructor") == [("ada", "Ada Lovelace"), ("bob", "Doe, Bob"), ("cy", "cy")]


@pytest.mark.parametrize("text, message", [
    ("Ada,Ada\n", "roster line 1: username 'Ada' must be lower-case"),
    ("ada,A:B\n", "roster line 1: the display name may not contain ':'"),
    ("ada,x\nada,y\n", "roster line 2: 'ada' appears twice"),
    ("instructor,x\n", "roster line 1: 'instructor' is the instructor's name"),
    ("blc-main,x\n", "roster line 1: 'blc-main' is one of the class's own accounts"),
    ("username\n# nobody\n", "the roster names no learner"),
    ("a" * 32 + ",x\n", "must be lower-case letters"),
])
def test_refusals_name_the_line(text, message):
    with pytest.raises(roster.RosterError) as e:
        roster.parse(text, "instructor", reserved=("blc-main",))
    assert message in str(e.value)


def test_check_name():
    assert roster.check_name("teacher-1", "--instructor") == "teacher-1"
    with pytest.raises(roster.RosterError, match="--instructor must be a user name"):
        roster.check_name("1teacher", "--instructor")
