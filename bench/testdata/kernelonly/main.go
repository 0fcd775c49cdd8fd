// Command kernelonly runs `-c SCRIPT` on a host-profile session of a kernel
// with no tools: the floor of the CLI's cold start, a program that links
// the kernel and nothing of shelter's plug-ins. With -subreaper the
// process is a child subreaper, as the CLI is.
//
//	kernelonly [-subreaper] -c SCRIPT
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/shelter-sh/shelter/kernel"
)

func main() {
	args := os.Args[1:]
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	if len(args) > 0 && args[0] == "-subreaper" {
		cfg.Subreaper = true
		args = args[1:]
	}
	if len(args) != 2 || args[0] != "-c" {
		fmt.Fprintln(os.Stderr, "usage: kernelonly [-subreaper] -c SCRIPT")
		os.Exit(2)
	}
	k, err := kernel.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s, err := k.NewSession(kernel.SessionOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	res, err := s.Run(context.Background(), args[1], kernel.RunOptions{Stdout: os.Stdout, Stderr: os.Stderr})
	s.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(res.ExitCode)
}
