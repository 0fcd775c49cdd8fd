# shelter's container images (docs/deploy.md):
#
#   docker build -t shelter .                       the binary alone, for the sandbox profile
#   docker build --target tools -t shelter-tools .  with git, go and python3, for examples/tools.yaml
#
# Both run as uid 65534 in /work, serve MCP over HTTP on 8765 by default
# (the token file is mounted at /run/secrets/shelter/token), and take
# shelter's arguments in place of that: docker run IMAGE -c 'echo hi'.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# /out is the root file system of the images: the static binary, /tmp and
# the work directory, owned by the user the images run as.
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/usr/local/bin/shelter ./cmd/shelter \
 && mkdir -p /out/tmp /out/work \
 && chmod 1777 /out/tmp \
 && chown 65534:65534 /out/work

# The programs examples/tools.yaml declares, with the sandbox's
# declared-programs confinement best-effort: Docker's default seccomp
# profile forbids the network namespace each program start would get
# (shelter doctor in the container says so), and Landlock still holds
# their files and signals.
FROM debian:stable-slim AS tools
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git python3 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/go /usr/local/go
COPY --from=build /out/ /
COPY examples/tools.yaml /etc/shelter/tools.yaml
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
USER 65534:65534
WORKDIR /work
EXPOSE 8765
ENTRYPOINT ["/usr/local/bin/shelter"]
CMD ["serve", "--http", "0.0.0.0:8765", "--token-file", "/run/secrets/shelter/token", \
     "--profile", "sandbox", "--root", "/work", "--tools", "/etc/shelter/tools.yaml", \
     "--confine", "best-effort"]

# The default: no shell, no program but shelter; the sandbox profile's
# commands are shelter's in-process builtins.
FROM scratch AS sandbox
COPY --from=build /out/ /
USER 65534:65534
WORKDIR /work
EXPOSE 8765
ENTRYPOINT ["/usr/local/bin/shelter"]
CMD ["serve", "--http", "0.0.0.0:8765", "--token-file", "/run/secrets/shelter/token", \
     "--profile", "sandbox", "--root", "/work"]
