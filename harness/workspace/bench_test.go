package workspace

import (
	"context"
	"fmt"
	"testing"
)

// benchWorkspace makes a workspace with one root agent for a benchmark.
func benchWorkspace(b *testing.B) (*Workspace, string) {
	b.Helper()
	ctx := context.Background()
	ws, err := Init(ctx, b.TempDir()+"/w")
	if err != nil {
		b.Fatal(err)
	}
	root, err := ws.NewAgent(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	return ws, root
}

// loop runs op b.N times and reports the git processes each run started
// (git/op): the cost that dominates, and one that does not vary with the
// machine's load.
func loop(b *testing.B, ws *Workspace, op func() error) {
	b.Helper()
	start := ws.git.spawned.Load()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(ws.git.spawned.Load()-start)/float64(n), "git/op")
}

func BenchmarkDispatch(b *testing.B) {
	ws, root := benchWorkspace(b)
	loop(b, ws, func() error {
		_, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "worker", Goal: "g"})
		return err
	})
}

func BenchmarkDispatchNamed(b *testing.B) {
	ws, root := benchWorkspace(b)
	i := 0
	loop(b, ws, func() error {
		i++
		_, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "worker", Goal: "g", Name: fmt.Sprint("n", i)})
		return err
	})
}

func BenchmarkDispatchRefused(b *testing.B) {
	ws, root := benchWorkspace(b)
	loop(b, ws, func() error {
		if _, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "ghost", Goal: "g"}); !IsRefusal(err) {
			return err
		}
		return nil
	})
}

func BenchmarkMessageByName(b *testing.B) {
	ws, root := benchWorkspace(b)
	if _, err := ws.Dispatch(context.Background(), root, DispatchInput{Role: "worker", Goal: "g", Name: "poet"}); err != nil {
		b.Fatal(err)
	}
	loop(b, ws, func() error {
		_, err := ws.Message(context.Background(), root, MessageInput{Agent: "poet", Content: "hi"})
		return err
	})
}

func BenchmarkNewAgent(b *testing.B) {
	ws, _ := benchWorkspace(b)
	loop(b, ws, func() error {
		_, err := ws.NewAgent(context.Background(), "")
		return err
	})
}

func BenchmarkInit(b *testing.B) {
	dir := b.TempDir()
	i := 0
	var spawned int64
	for b.Loop() {
		i++
		ws, err := Init(context.Background(), fmt.Sprintf("%s/w%d", dir, i))
		if err != nil {
			b.Fatal(err)
		}
		spawned += ws.git.spawned.Load()
	}
	b.ReportMetric(float64(spawned)/float64(i), "git/op")
}
