"""A learner's server (jupyterhub-singleuser) on a listening socket that the hub bound for it.

The hub binds each server's port itself, as root, and keeps its own copy of the socket until the
proxy has forgotten the route to it (see spawner.py). So the port is never free while the proxy
may still send a learner's requests there: no other learner can bind it and receive them (and
their cookies), even after the server ended on its own. The server only accepts on the socket it
is handed; it binds nothing.

    python -m backofflab_class.singleuser --listen-fd N [jupyterhub-singleuser's arguments]
"""

import socket
import sys


def run(argv, listen_fd):
    """Runs jupyterhub-singleuser with argv, serving on the listening socket listen_fd; returns its
    exit code."""
    sock = socket.socket(fileno=listen_fd)
    if sock.type != socket.SOCK_STREAM or sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN) != 1:
        raise ValueError("--listen-fd %d is not a listening TCP socket" % listen_fd)
    sock.setblocking(False)
    port = sock.getsockname()[1]

    from jupyter_server.serverapp import ServerApp

    def find_port(self):
        if self.port != port:
            raise ValueError("the server was asked for port %d, and given the socket of port %d" % (self.port, port))

    def bind(self):
        self.http_server.add_socket(sock)
        return True

    ServerApp._find_http_port = find_port
    ServerApp._bind_http_server_tcp = bind
    sys.argv = ["jupyterhub-singleuser"] + list(argv)
    from jupyterhub.singleuser import main
    return main()


def main(argv):
    if len(argv) < 2 or argv[0] != "--listen-fd" or not argv[1].isdigit():
        raise SystemExit("usage: python -m backofflab_class.singleuser --listen-fd N [jupyterhub-singleuser's arguments]")
    code = run(argv[2:], int(argv[1]))
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
