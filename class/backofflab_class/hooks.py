"""The class's spawner hooks (JupyterHub's Spawner.pre_spawn_hook and post_stop_hook).

    c.Spawner.pre_spawn_hook = backofflab_class.hooks.pre_spawn
    c.Spawner.post_stop_hook = backofflab_class.hooks.post_stop

pre_spawn gives the server its role's Jupyter configuration and copies the lessons into a
learner's home, as the learner (homes.py); post_stop ends every process the account still has:
its kernels (which run in sessions of their own, and so outlive a server that ends), terminals
and whatever they started. Both read the spawner's ClassSpawner settings.
"""

import asyncio
import os
import pwd

from . import limits, procs


async def as_account(pw, cmd, timeout=120):
    """Runs cmd as the account pw (its user and groups), with a fresh login's environment; returns
    (exit code, output). Nothing of root's acts on the account's files."""
    gids = os.getgrouplist(pw.pw_name, pw.pw_gid)
    env = {"HOME": pw.pw_dir, "USER": pw.pw_name, "LOGNAME": pw.pw_name, "LANG": "C.UTF-8",
           "PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    p = await asyncio.create_subprocess_exec(*cmd, user=pw.pw_uid, group=pw.pw_gid, extra_groups=gids, env=env, cwd="/",
                                             stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                                             stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = await asyncio.wait_for(p.communicate(), timeout)
    except asyncio.TimeoutError:
        p.kill()
        await p.wait()
        return -1, "timed out after %d s" % timeout
    return p.returncode, out.decode(errors="replace")


async def pre_spawn(spawner):
    name = spawner.user.name
    role = "instructor" if name == spawner.instructor else "learner"
    # glibc gives each of a server's threads its own malloc arena, and keeps what they freed: two
    # arenas hold a server at about two thirds of the memory (thirty servers share the machine).
    spawner.environment["MALLOC_ARENA_MAX"] = "2"
    spawner.environment.update(spawner.server_config.get(role, {}))
    if role == "learner":
        pw = pwd.getpwnam(name)
        code, out = await as_account(pw, [spawner.python, "-m", "backofflab_class.homes", "lessons", spawner.repo])
        if code != 0:
            raise RuntimeError("copying the lessons into %s's home failed: %s" % (name, out.strip()[-500:]))
        spawner.log.info("lessons for %s: %s", name, out.strip())


async def post_stop(spawner):
    pw = pwd.getpwnam(spawner.user.name)
    if spawner.cgroup_base:
        try:
            limits.Cgroups(spawner.cgroup_base).kill(pw.pw_name)
        except OSError as e:
            spawner.log.warning("could not end %s's cgroup: %s", pw.pw_name, e)
    left = await asyncio.get_running_loop().run_in_executor(None, procs.kill_uid, pw.pw_uid, 10.0)
    if left:
        spawner.log.warning("%s still has processes after their server stopped: %s", pw.pw_name, left)
