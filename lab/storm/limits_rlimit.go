//go:build linux || darwin

package storm

import "syscall"

// openFileLimit returns the process's soft and hard RLIMIT_NOFILE.
func openFileLimit() (soft, hard uint64, ok bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, false
	}
	return uint64(r.Cur), uint64(r.Max), true
}

// raiseOpenFileLimit raises the soft RLIMIT_NOFILE to n, which must not
// exceed the hard limit, and reports whether it could.
func raiseOpenFileLimit(n uint64) bool {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return false
	}
	r.Cur = n
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r) == nil
}
