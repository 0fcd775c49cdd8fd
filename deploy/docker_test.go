package deploy_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// label marks every image and container the tests make, so that
// .ci/docker can remove what a killed run left.
const label = "shelter.test"

// podFlags are docker run's flags for a per-agent pod (docs/deploy.md),
// but for the network, which each run names.
var podFlags = []string{
	"--read-only", "--user", "65534:65534", "--cap-drop", "ALL",
	"--security-opt", "no-new-privileges",
}

// docker is a daemon the tests may use, and the image they built in it.
type docker struct {
	run   string // this test run's label value
	arch  string // the daemon's GOARCH
	image string
}

// needDocker returns the daemon, or skips the test saying why; with
// SHELTER_DOCKER=1 a daemon that does not answer fails it.
func needDocker(t *testing.T) *docker {
	t.Helper()
	if os.Getenv("SHELTER_DOCKER") != "1" {
		t.Skip("SHELTER_DOCKER is not 1: the container tests need a Docker daemon (.ci/docker, which .ci/run runs, starts one and sets it)")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Fatalf("SHELTER_DOCKER=1, but: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	d := &docker{run: hex.EncodeToString(b)}
	r := d.exec(t, "", "version", "--format", "{{.Server.Arch}}")
	if r.code != 0 {
		t.Fatalf("SHELTER_DOCKER=1, but no Docker daemon answers: %s", r.stderr)
	}
	d.arch = strings.TrimSpace(r.stdout)
	t.Cleanup(func() { d.remove(t) })
	return d
}

// result is how a docker command ended.
type result struct {
	stdout, stderr string
	code           int
}

// exec runs docker with args and stdin, for at most two minutes.
func (d *docker) exec(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("docker %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("docker %s: no end in two minutes; stderr: %s", strings.Join(args, " "), errb.String())
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// pod runs the image as a per-agent pod with no network and the work
// volume on /work, with shelter's args and stdin (docker run -i).
func (d *docker) pod(t *testing.T, work, stdin string, args ...string) result {
	t.Helper()
	run := []string{"run", "--rm", "-i", "--label", label + "=" + d.run, "--network", "none"}
	run = append(run, podFlags...)
	run = append(run, "-v", work+":/work", d.image)
	return d.exec(t, stdin, append(run, args...)...)
}

// remove removes every container of this run, running or not, then
// its image.
func (d *docker) remove(t *testing.T) {
	r := d.exec(t, "", "ps", "-aq", "--filter", "label="+label+"="+d.run)
	if ids := strings.Fields(r.stdout); len(ids) > 0 {
		d.exec(t, "", append([]string{"rm", "-f"}, ids...)...)
	}
	if d.image != "" {
		d.exec(t, "", "rmi", d.image)
	}
}

// buildImage builds a static shelter and imports it as an image without
// any registry: the root file system of the Dockerfile's sandbox stage
// (the binary, /tmp, /work owned by 65534), written here, its
// configuration given to docker import. needDocker's cleanup removes it.
func (d *docker) buildImage(t *testing.T) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "shelter")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", bin, "./cmd/shelter")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+d.arch)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	rootfs, err := rootFS(bin)
	if err != nil {
		t.Fatal(err)
	}
	d.image = "shelter-test:" + d.run
	args := []string{"import"}
	for _, c := range append(imageConfig, "LABEL "+label+"="+d.run) {
		args = append(args, "-c", c)
	}
	r := d.exec(t, rootfs, append(args, "-", d.image)...)
	if r.code != 0 {
		t.Fatalf("docker import: %s", r.stderr)
	}
}

// imageConfig is the configuration of the Dockerfile's sandbox stage
// (TestDockerfileSandboxStage), given to docker import.
var imageConfig = []string{
	"USER 65534:65534",
	"WORKDIR /work",
	"EXPOSE 8765",
	`ENTRYPOINT ["/usr/local/bin/shelter"]`,
}

// TestDockerfileSandboxStage: the image the container tests import is
// configured as the Dockerfile's last stage, which they cannot build
// without a registry.
func TestDockerfileSandboxStage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := strings.Split(string(src), "\nFROM ")
	last := stages[len(stages)-1]
	if !strings.HasPrefix(last, "scratch AS sandbox\n") {
		t.Fatalf("the Dockerfile's last stage is FROM %s; want FROM scratch AS sandbox", strings.SplitN(last, "\n", 2)[0])
	}
	lines := strings.Split(last, "\n")
	for _, c := range imageConfig {
		if !slices.Contains(lines, c) {
			t.Errorf("the Dockerfile's sandbox stage has no line %q", c)
		}
	}
	if !slices.Contains(lines, "COPY --from=build /out/ /") {
		t.Errorf("the Dockerfile's sandbox stage does not copy /out/, the root file system rootFS writes")
	}
}

// rootFS is a tar of the image's files: those the Dockerfile's build
// stage puts in /out.
func rootFS(bin string) (string, error) {
	shelter, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	dir := func(name string, mode int64, uid int) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: uid, Gid: uid, ModTime: now})
	}
	dir("usr/", 0o755, 0)
	dir("usr/local/", 0o755, 0)
	dir("usr/local/bin/", 0o755, 0)
	dir("tmp/", 0o1777, 0)
	dir("work/", 0o755, 65534)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "usr/local/bin/shelter", Mode: 0o755, Size: int64(len(shelter)), ModTime: now})
	tw.Write(shelter)
	if err := tw.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// workDir is a fresh work volume the container's user may write.
func workDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chown(dir, 65534, 65534); err != nil {
		// Not root: let every user write it instead.
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestContainer runs the image as docs/deploy.md deploys it: the CLI,
// the sandbox's refusals, every profile on a read-only root, serve over
// stdio and over HTTP with a token, and SIGTERM with a call in flight.
func TestContainer(t *testing.T) {
	start := time.Now()
	d := needDocker(t)
	d.buildImage(t)
	t.Logf("image %s built and imported in %s", d.image, time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		t.Logf("container test: %s wall time", time.Since(start).Round(time.Millisecond))
	})

	t.Run("ExitCode", func(t *testing.T) {
		r := d.pod(t, workDir(t), "", "-c", "echo hi; exit 3")
		if r.code != 3 || r.stdout != "hi\n" || r.stderr != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 3, \"hi\\n\", nothing", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("SandboxRefusal", func(t *testing.T) {
		r := d.pod(t, workDir(t), "", "--profile", "sandbox", "--root", "/work", "-c", "cat /etc/passwd")
		want := "cat: /etc/passwd: outside the sandbox root; allowed: paths under /work\n"
		// A refusal exits 2 (docs/sandbox.md, "Exit status of a refusal").
		if r.code != 2 || r.stdout != "" || r.stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", r.code, r.stdout, r.stderr, want)
		}
	})

	// The image has no programs: every profile runs the in-process
	// builtins, and none may need a writable /tmp.
	t.Run("Profiles", func(t *testing.T) {
		for _, args := range [][]string{
			{"--profile", "host", "--builtins"},
			{"--profile", "agent", "--builtins"},
			{"--profile", "sandbox", "--root", "/work"},
		} {
			t.Run(args[1], func(t *testing.T) {
				work := workDir(t)
				r := d.pod(t, work, "", append(args, "-c", "seq 3 | sort -r > f; head -n 1 f; wc -l < f")...)
				if r.code != 0 || r.stdout != "3\n3\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0 and \"3\\n3\\n\"", r.code, r.stdout, r.stderr)
				}
				if b, err := os.ReadFile(filepath.Join(work, "f")); err != nil || string(b) != "3\n2\n1\n" {
					t.Errorf("the work volume's f: %q, %v", b, err)
				}
			})
		}
	})

	t.Run("Confine", func(t *testing.T) { testConfine(t, d) })
	t.Run("ServeStdio", func(t *testing.T) { testServeStdio(t, d) })
	t.Run("ServeHTTP", func(t *testing.T) { testServeHTTP(t, d) })
}

// testConfine: what shelter doctor says in a container with Docker's
// default seccomp profile, and what --confine on and best-effort do
// there with a program of the sandbox (shelter itself, the only one the
// image has).
func testConfine(t *testing.T, d *docker) {
	doctor := d.pod(t, workDir(t), "", "doctor")
	t.Logf("shelter doctor in the container, exit %d:\n%s", doctor.code, doctor.stdout)
	landlock := strings.Contains(doctor.stdout, "files (Landlock)           yes")

	sandbox := []string{"--profile", "sandbox", "--root", "/work", "--allow-external", "shelter"}
	on := d.pod(t, workDir(t), "", append(sandbox, "-c", "shelter -c 'echo inner'")...)
	switch doctor.code {
	case 0:
		if on.code != 0 || on.stdout != "inner\n" {
			t.Errorf("--confine on where doctor holds all: exit %d, stdout %q, stderr %q", on.code, on.stdout, on.stderr)
		}
	default:
		if on.code != 126 || !strings.Contains(on.stderr, "shelter: shelter: cannot confine the program: this host lacks ") ||
			!strings.Contains(on.stderr, "allowed: --confine best-effort") {
			t.Errorf("--confine on where doctor misses some: exit %d, stderr %q; want 126 and the refusal", on.code, on.stderr)
		}
	}

	// best-effort: the program runs; Landlock, where the host has it,
	// still keeps it from writing outside the root and $TMPDIR.
	script := "shelter --builtins -c 'echo x > /scratch/x'; echo status $?; shelter --builtins -c 'echo y > /work/y'; cat y"
	run := []string{"run", "--rm", "--label", label + "=" + d.run, "--network", "none"}
	run = append(run, podFlags...)
	run = append(run, "-v", workDir(t)+":/work", "--tmpfs", "/scratch:uid=65534,gid=65534", d.image)
	r := d.exec(t, "", append(run, append(sandbox, "--confine", "best-effort", "-c", script)...)...)
	want := "status 0\ny\n"
	if landlock {
		want = "status 1\ny\n"
	}
	if r.code != 0 || r.stdout != want {
		t.Errorf("--confine best-effort: exit %d, stdout %q, stderr %q; want 0, %q", r.code, r.stdout, r.stderr, want)
	}
	if landlock && !strings.Contains(r.stderr, "/scratch/x: permission denied") {
		t.Errorf("--confine best-effort: stderr %q; want Landlock's refusal to write /scratch/x", r.stderr)
	}
}

// mcpRequests are a client's first messages and a call, as one stdin
// that ends right after them.
const mcpRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deploy-test","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"seq 2; echo done"}}}
`

// testServeStdio: docker run -i as an MCP client's stdio server entry;
// stdin closes right after the requests, and every one is answered.
func testServeStdio(t *testing.T, d *docker) {
	r := d.pod(t, workDir(t), mcpRequests, "serve", "--profile", "sandbox", "--root", "/work")
	if r.code != 0 {
		t.Errorf("exit %d; want 0; stderr %q", r.code, r.stderr)
	}
	answers := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var msg struct{ ID *int }
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID != nil {
			answers[*msg.ID] = line
		}
	}
	for _, id := range []int{1, 2, 3} {
		if _, ok := answers[id]; !ok {
			t.Errorf("request %d has no answer; stdout:\n%s", id, r.stdout)
		}
	}
	if a, ok := answers[2]; ok && !strings.Contains(a, `"name":"bash"`) {
		t.Errorf("tools/list lists no bash: %s", a)
	}
	if a, ok := answers[3]; ok && !strings.Contains(a, `"stdout":"1\n2\ndone\n"`) {
		t.Errorf("the call's answer has not its output: %s", a)
	}
}
