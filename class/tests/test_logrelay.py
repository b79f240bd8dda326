import asyncio
import os
import stat

from backofflab_class import logrelay


def test_lines_are_prefixed_and_joined(tmp_path):
    log = logrelay.LogFile(str(tmp_path / "a.log"), "ada: ")
    log.write(b"one\ntw")
    log.write(b"o\nthree")
    log.close()
    assert (tmp_path / "a.log").read_bytes() == b"ada: one\nada: two\nada: three\n"
    assert stat.S_IMODE(os.stat(tmp_path / "a.log").st_mode) == 0o600


def test_cap_drops_later_lines_once_saying_so(tmp_path):
    log = logrelay.LogFile(str(tmp_path / "a.log"), "a: ", cap=100)
    for i in range(50):
        log.write(b"line %d\n" % i)
    log.close()
    data = (tmp_path / "a.log").read_bytes()
    assert len(data) <= 100 + 80
    assert data.count(b"log cap of 100 bytes reached") == 1
    assert data.startswith(b"a: line 0\n")


def test_a_line_without_end_is_cut(tmp_path):
    log = logrelay.LogFile(str(tmp_path / "a.log"), "a: ")
    log.write(b"x" * 10000)
    log.close()
    assert all(len(line) <= 4096 + 3 for line in (tmp_path / "a.log").read_bytes().split(b"\n"))


def test_no_link_is_followed(tmp_path):
    (tmp_path / "target").write_text("")
    os.symlink(tmp_path / "target", tmp_path / "a.log")
    try:
        logrelay.LogFile(str(tmp_path / "a.log"), "a: ")
    except OSError:
        pass
    else:
        raise AssertionError("a log file opened through a link")


def test_relay_copies_a_pipe_until_its_writers_close_it(tmp_path):
    async def main():
        r, w = os.pipe()
        done = asyncio.Event()
        logrelay.Relay(asyncio.get_running_loop(), r, logrelay.LogFile(str(tmp_path / "a.log"), "a: "), on_close=done.set)
        os.write(w, b"hello\nworld\n")
        os.close(w)
        await asyncio.wait_for(done.wait(), 5)
    asyncio.run(main())
    assert (tmp_path / "a.log").read_bytes() == b"a: hello\na: world\n"


def test_relay_makes_a_fast_writer_wait(tmp_path):
    async def main():
        r, w = os.pipe()
        os.set_blocking(w, False)
        relay = logrelay.Relay(asyncio.get_running_loop(), r, logrelay.LogFile(str(tmp_path / "a.log"), "a: "), rate=1000)
        sent = 0
        for _ in range(200):  # as fast as the pipe takes it, for about a second
            try:
                sent += os.write(w, b"x" * 999 + b"\n")
            except BlockingIOError:
                pass
            await asyncio.sleep(0.005)
        os.close(w)
        relay.close()
        return sent
    sent = asyncio.run(main())
    copied = len((tmp_path / "a.log").read_bytes())
    assert copied < sent, "the relay read everything a fast writer sent (%d bytes): it should have paused" % copied
