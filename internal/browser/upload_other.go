//go:build !unix

package browser

import "os"

// linkCount is 1: on Windows (and other systems without Stat_t) the
// hard-link check is skipped.
func linkCount(os.FileInfo) uint64 { return 1 }
