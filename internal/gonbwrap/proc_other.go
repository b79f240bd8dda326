//go:build !linux

package main

import (
	"syscall"
	"time"
)

// adoptOrphans does nothing here: only Linux lets a process adopt its descendants.
func adoptOrphans() {}

// stopWithParent does nothing here: only Linux stops a child with its parent.
func stopWithParent(*syscall.SysProcAttr) {}

// stopOrphans does nothing here (see adoptOrphans).
func stopOrphans(time.Duration) {}
