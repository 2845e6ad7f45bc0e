//go:build unix

package daemon

import (
	"fmt"
	"os"
	"syscall"
)

// owned checks that path belongs to this user and that no other user may
// write it (a dir: not group- or world-writable; a file: not group- or
// world-readable or writable, as it may hold the token).
func owned(path string, dir bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return untrusted(path, fmt.Sprintf("it belongs to another user (uid %d)", st.Uid), "remove it, or set XDG_CONFIG_HOME to a folder of your own")
	}
	bad, want := fi.Mode().Perm()&0o077, "600"
	if dir {
		bad, want = fi.Mode().Perm()&0o022, "700"
	}
	if bad != 0 {
		return untrusted(path, fmt.Sprintf("other users may change it (mode %o)", fi.Mode().Perm()), fmt.Sprintf("run chmod %s %s", want, path))
	}
	return nil
}
