//go:build !linux

package main

func closeRangeOnExec() bool { return false }
