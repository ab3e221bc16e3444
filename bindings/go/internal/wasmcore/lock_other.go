//go:build (!unix || solaris || aix) && !windows

package wasmcore

import "os"

// tryLock: no advisory lock here, so no claim (the core refuses with node).
func tryLock(*os.File) int32 { return unusable }
