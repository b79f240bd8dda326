import json
import os

from traitlets.config.loader import PyFileConfigLoader

from backofflab_class import configgen

SETTINGS = {
    "instance": "t1", "ip": "0.0.0.0", "port": 8123, "hub_port": 901, "db_url": "sqlite:////s/jupyterhub.sqlite",
    "cookie_secret": "/s/cookie_secret", "pid_file": "/s/jupyterhub.pid", "proxy_command": ["/r/node_modules/.bin/configurable-http-proxy"],
    "proxy_api_url": "http://127.0.0.1:902", "proxy_pid_file": "/s/proxy.pid", "learners": ["ada", "bob"], "instructor": "teach",
    "zygote_socket": "/s/zygote.sock", "python": "/v/bin/python", "log_dir": "/s/logs", "processes": 300, "memory_mb": 1024,
    "port_range": (600, 900), "repo": "/r", "server_config": {"learner": {"JUPYTER_CONFIG_PATH": "/c/learner"}},
    "environment": {"BACKOFFLAB_CLASS": "1", "PATH": "/v/bin:/usr/bin"},
}


def load(tmp_path, text):
    p = tmp_path / "jupyterhub_config.py"
    p.write_text(text)
    return PyFileConfigLoader(p.name, path=str(tmp_path)).load_config()


def test_hub_config_holds_every_setting(tmp_path):
    c = load(tmp_path, configgen.hub_config(SETTINGS))
    assert c.JupyterHub.spawner_class == "backofflab_class.spawner.ClassSpawner"
    assert (c.JupyterHub.ip, c.JupyterHub.port, c.JupyterHub.hub_port) == ("0.0.0.0", 8123, 901)
    assert c.Authenticator.allowed_users == {"ada", "bob", "teach"}
    assert c.Authenticator.admin_users == set()
    assert c.JupyterHub.load_groups["instructors"] == {"users": ["teach"]}
    assert c.ClassSpawner.zygote_socket == "/s/zygote.sock"
    assert (c.ClassSpawner.processes, c.ClassSpawner.memory_mb, c.ClassSpawner.port_range) == (300, 1024, (600, 900))
    assert c.ClassSpawner.server_config == {"learner": {"JUPYTER_CONFIG_PATH": "/c/learner"}}
    assert c.Spawner.environment == SETTINGS["environment"]
    assert c.Spawner.env_keep == []
    from backofflab_class import hooks
    assert c.Spawner.pre_spawn_hook is hooks.pre_spawn and c.Spawner.post_stop_hook is hooks.post_stop


def test_hub_config_reads_no_environment(tmp_path):
    text = configgen.hub_config(SETTINGS)
    assert "os.environ" not in text and "getenv" not in text and "import os" not in text
    # A value is a literal: quotes and backslashes in a path stay what they were.
    odd = dict(SETTINGS, log_dir="/s/it's \\ \"odd\"")
    assert load(tmp_path, configgen.hub_config(odd)).ClassSpawner.log_dir == odd["log_dir"]


def test_hub_config_names_what_is_missing():
    import pytest
    with pytest.raises(KeyError, match="settings missing: python"):
        configgen.hub_config({k: v for k, v in SETTINGS.items() if k != "python"})


def test_nbgrader_configs(tmp_path):
    learner = configgen.nbgrader_config("backofflab", "/x/exchange", "learner")
    assert 'c.ExchangeFactory.submit = "backofflab_class.exchange.ExchangeSubmit"' in learner
    teacher = configgen.nbgrader_config("backofflab", "/x/exchange", "instructor", course_root="/home/t/course")
    (tmp_path / "nbgrader_config.py").write_text(teacher)
    c = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert c.CourseDirectory.root == "/home/t/course" and c.Exchange.root == "/x/exchange"
    assert "ExchangeFactory" not in teacher


def test_server_config_turns_off_what_learners_do_not_use():
    ext = json.loads(configgen.server_config("learner"))["ServerApp"]["jpserver_extensions"]
    assert ext["nbgrader.server_extensions.formgrader"] is False and ext["jupyter_lsp"] is False
    assert json.loads(configgen.server_config("instructor"))["ServerApp"]["jpserver_extensions"] == {"nbgrader.server_extensions.assignment_list": False}


def test_kernel_spec():
    spec = json.loads(configgen.kernel_spec(["bash", "k", "{connection_file}"], "Go", {"A": "1"}))
    assert spec == {"argv": ["bash", "k", "{connection_file}"], "display_name": "Go", "language": "go", "env": {"A": "1"}}
    assert os.sep not in spec["display_name"]


def test_the_course_grades_in_the_sandbox(tmp_path):
    # The course's own nbgrader_config.py (copied into ~instructor/course, read after the class's)
    # names the grading sandbox's kernel: autograde never starts a kernel as the instructor.
    c = PyFileConfigLoader("nbgrader_config.py", path=os.path.join(os.path.dirname(os.path.dirname(__file__)))).load_config()
    assert c.Execute.kernel_name == "backofflab-go-grader"
