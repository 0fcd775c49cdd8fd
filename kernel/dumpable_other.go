//go:build !linux

package kernel

// nonDumpable is Linux's; elsewhere other processes of the same user can
// read what the system lets them (docs/security.md).
func nonDumpable() {}
