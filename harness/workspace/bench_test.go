package workspace

import (
	"context"
	"testing"
)

func BenchmarkDispatch(b *testing.B) {
	ctx := context.Background()
	ws, err := Init(ctx, b.TempDir()+"/w")
	if err != nil {
		b.Fatal(err)
	}
	root, err := ws.NewAgent(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDispatchRefused(b *testing.B) {
	ctx := context.Background()
	ws, err := Init(ctx, b.TempDir()+"/w")
	if err != nil {
		b.Fatal(err)
	}
	root, err := ws.NewAgent(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ws.Dispatch(ctx, root, DispatchInput{Role: "ghost", Goal: "g"}); !IsRefusal(err) {
			b.Fatal(err)
		}
	}
}

func BenchmarkMessageByName(b *testing.B) {
	ctx := context.Background()
	ws, err := Init(ctx, b.TempDir()+"/w")
	if err != nil {
		b.Fatal(err)
	}
	root, err := ws.NewAgent(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ws.Dispatch(ctx, root, DispatchInput{Role: "worker", Goal: "g", Name: "poet"}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ws.Message(ctx, root, MessageInput{Agent: "poet", Content: "hi"}); err != nil {
			b.Fatal(err)
		}
	}
}
