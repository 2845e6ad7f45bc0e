//go:build !unix && !windows

package launch

import "syscall"

// canLaunch reports whether webpilot launches browsers on this OS: not on
// the OSes that are neither unix nor Windows, which have no Chromium.
const canLaunch = false

func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(int) error { return nil }

// pidAlive cannot tell.
func pidAlive(int) bool { return false }

func killMarked(string, string) int { return 0 }
