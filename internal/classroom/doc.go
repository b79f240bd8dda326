// Package classroom tests the class command (scripts/class): JupyterHub with one system account
// per learner, the kernel in class mode, and nbgrader's full round trip on the exercise notebooks.
//
// The tests start a class of three learners and an instructor, drive it as learners at a browser
// would (class/client.py: the hub's login, the servers' APIs, the kernels' websockets), and stop it
// at the end, checking that no process and no account is left. They need root (the class creates
// system accounts) and are skipped with -short.
package classroom
