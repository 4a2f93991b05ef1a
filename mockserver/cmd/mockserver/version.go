package main

import "runtime/debug"

// version is stamped by release builds (-ldflags "-X main.version=v0.1.0"); empty otherwise.
var version string

// versionString is what -version prints: the stamped version, else the module version the
// go command recorded (`go install ...@v0.1.0` records v0.1.0), else "(devel)".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
