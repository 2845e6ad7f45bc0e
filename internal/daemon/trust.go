package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Trusted checks that dir (the daemon's state dir) and the daemon's files
// in it are this user's own and that no other user can change them: a
// state file another user wrote, or could rewrite, would send this user's
// proxies — with their secrets and token — to an address of that user's
// choosing. A dir or file that does not exist yet passes (webpilot makes
// it, mode 0700 or 0600). Where the platform has no owners to check
// (Windows) it checks nothing.
func Trusted(dir string) error {
	if err := owned(dir, true); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, name := range []string{StateFile, RunLock, StartLock} {
		if err := owned(filepath.Join(dir, name), false); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// untrusted is the error of a path another user owns or may change.
func untrusted(path, why, fix string) error {
	return fmt.Errorf("webpilot does not trust %s: %s, so it could send this user's MCP clients (and their secrets) to another program; %s", path, why, fix)
}
