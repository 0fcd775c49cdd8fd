//go:build !linux

package kernel_test

import "errors"

func mountReadOnly(string) error { return errors.New("no tmpfs here") }

func unmount(string) {}
