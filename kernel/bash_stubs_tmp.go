package kernel

import (
	"context"

	"mvdan.cc/sh/v3/interp"
)

func (s *Session) mapfileCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
func (s *Session) dirsCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
func (s *Session) pushdCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
func (s *Session) popdCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
func (s *Session) umaskCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
func (s *Session) ulimitCall(ctx context.Context, hc interp.HandlerContext, args []string) []string {
	return args
}
