package builtins

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// This file holds the permission bits mkdir -m sets and cp gives what it
// makes: the umask, fs.FileMode to and from unix bits, chmod(1)'s modes.

// fsUmask is shelter's own umask, read once without changing it.
var fsUmask = sync.OnceValue(func() uint32 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(n)
				}
			}
		}
	}
	return 0o022
})

// fsMode turns unix permission bits (with setuid, setgid, sticky) into an
// fs.FileMode for Chmod.
func fsMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// fsUnixMode is the reverse of fsMode.
func fsUnixMode(mode fs.FileMode) uint32 {
	m := uint32(mode.Perm())
	if mode&fs.ModeSetuid != 0 {
		m |= 0o4000
	}
	if mode&fs.ModeSetgid != 0 {
		m |= 0o2000
	}
	if mode&fs.ModeSticky != 0 {
		m |= 0o1000
	}
	return m
}

// fsParseMode reads an octal or symbolic (u+x,go-w,a=rX) mode as chmod(1)
// does, applied to cur; umask limits the clauses that name no one.
// The second result is the bits the mode sets or clears explicitly.
func fsParseMode(spec string, cur uint32, isDir bool, umask uint32) (uint32, uint32, bool) {
	if spec == "" {
		return 0, 0, false
	}
	if strings.Trim(spec, "01234567") == "" {
		n, err := strconv.ParseUint(spec, 8, 32)
		if err != nil || n > 0o7777 {
			return 0, 0, false
		}
		return uint32(n), 0o7777, true
	}
	var touched uint32
	for _, clause := range strings.Split(spec, ",") {
		i := 0
		var who uint32
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			switch clause[i] {
			case 'u':
				who |= 0o4700
			case 'g':
				who |= 0o2070
			case 'o':
				who |= 0o1007
			case 'a':
				who |= 0o7777
			}
		}
		masked := who == 0
		if masked {
			who = 0o7777
		}
		if i == len(clause) {
			return 0, 0, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return 0, 0, false
			}
			i++
			var bits uint32
			if i < len(clause) && strings.IndexByte("ugo", clause[i]) >= 0 {
				var c uint32
				switch clause[i] {
				case 'u':
					c = (cur >> 6) & 7
				case 'g':
					c = (cur >> 3) & 7
				case 'o':
					c = cur & 7
				}
				bits = c<<6 | c<<3 | c
				i++
			} else {
				for ; i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0; i++ {
					switch clause[i] {
					case 'r':
						bits |= 0o444
					case 'w':
						bits |= 0o222
					case 'x':
						bits |= 0o111
					case 'X':
						if isDir || cur&0o111 != 0 {
							bits |= 0o111
						}
					case 's':
						bits |= 0o6000
					case 't':
						bits |= 0o1000
					}
				}
			}
			value := bits & who
			if masked {
				value &^= umask
			}
			switch op {
			case '+':
				cur |= value
				touched |= value
			case '-':
				cur &^= value
				touched |= value
			case '=':
				clear := who
				if masked {
					clear = 0o7777
				}
				cur = cur&^clear | value
				touched |= clear
			}
		}
	}
	return cur, touched, true
}
