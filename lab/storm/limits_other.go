//go:build !linux && !darwin

package storm

// openFileLimit reports that the limit is unknown on this system.
func openFileLimit() (soft, hard uint64, ok bool) { return 0, 0, false }

// raiseOpenFileLimit cannot raise a limit it does not know.
func raiseOpenFileLimit(uint64) bool { return false }
