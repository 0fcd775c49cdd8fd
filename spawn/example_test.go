package spawn_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/shelter-sh/shelter/spawn"
)

func ExampleRun() {
	path, err := spawn.LookPath("/usr/bin:/bin", "/", "sh")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	status, err := spawn.Run(ctx, &spawn.Cmd{
		Path:   path,
		Args:   []string{"sh", "-c", "echo $GREETING; sleep 10 & sleep 10"},
		Env:    []string{"GREETING=hello"},
		Dir:    "/",
		Stdout: os.Stdout,
		Grace:  50 * time.Millisecond,
	})
	fmt.Println(status, err)
	// Output:
	// hello
	// 143 context deadline exceeded
}

func ExampleLookPath() {
	_, err := spawn.LookPath("", "/", "no-such-command")
	fmt.Println(err, err.(*spawn.LookPathError).Status)
	// Output: no-such-command: command not found 127
}
