// Package deploy holds no code: its tests run shelter as docs/deploy.md
// deploys it, in a container of a real Docker daemon, with the flags a
// per-agent pod gets (no network, a read-only root, a non-root user, no
// capabilities, a work volume).
//
// The tests build their image without any registry: a static shelter in
// a root file system the test writes, loaded with `docker import`. They
// run when SHELTER_DOCKER=1 (.ci/docker sets it, installs Debian's docker.io
// and starts dockerd where none answers); without it they skip, saying
// so, and with it a missing daemon is a failure, never a skip.
package deploy
