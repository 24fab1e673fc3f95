package local

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// assets are the server configuration templates and Maven poms, shared
// with scripts/servers (which reads the same files from the source tree).
//
//go:embed assets
var assets embed.FS

// asset returns an embedded file with @KEY@ placeholders filled in.
func asset(name string, fill map[string]string) (string, error) {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		return "", fmt.Errorf("embedded asset %s: %w", name, err)
	}
	s := string(b)
	for k, v := range fill {
		s = strings.ReplaceAll(s, "@"+k+"@", v)
	}
	return s, nil
}

// Pinned versions, the same as scripts/servers: a new release must not
// change results unannounced.
const (
	CassandraVersion     = "5.0.4"
	DynamoDBLocalVersion = "2.6.1"
)

// cacheDir is where downloads are kept between runs.
func cacheDir() (string, error) {
	if d := os.Getenv("DBARENA_CACHE"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cache directory: set DBARENA_CACHE or HOME: %w", err)
	}
	return filepath.Join(home, ".cache", "dbarena"), nil
}

// mavenLib returns the directory of jars for an artifact, downloading it
// and every jar it needs from Maven Central once. The directory is filled
// under a temporary name and renamed last, so an interrupted download is
// never taken for a complete one.
func mavenLib(name, version, pom string, log func(string)) (string, error) {
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	dest := filepath.Join(cache, name+"-"+version)
	lib := filepath.Join(dest, "lib")
	if entries, err := os.ReadDir(lib); err == nil && len(entries) > 0 {
		return lib, nil
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return "", fmt.Errorf("%s %s must be downloaded once with Maven, and mvn is not installed: apt-get install maven (or set DBARENA_CACHE to a directory holding %s-%s/lib)", name, version, name, version)
	}
	log(fmt.Sprintf("downloading %s %s from Maven Central (once, into %s)", name, version, dest))
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, "."+name+".")
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up a failure
	text, err := asset(pom, map[string]string{"VERSION": version})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, "pom.xml"), []byte(text), 0o644); err != nil {
		return "", err
	}
	// -C: a corrupt download fails its checksum.
	cmd := exec.Command(mvn, "-B", "-q", "-C", "-Dstyle.color=never", "dependency:copy-dependencies", "-DoutputDirectory=lib")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("download %s %s with Maven: %w\n%s", name, version, err, lastLines(string(out), 20))
	}
	if err := os.Remove(filepath.Join(tmp, "pom.xml")); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dest); err != nil {
		// A concurrent run may have won the race; its copy is as good.
		if _, statErr := os.Stat(lib); statErr == nil {
			return lib, nil
		}
		return "", errors.Join(fmt.Errorf("cache %s: %w", dest, err))
	}
	return lib, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// need returns the path of a program, or an error saying how to install
// it.
func need(program, install string) (string, error) {
	p, err := exec.LookPath(program)
	if err != nil {
		return "", fmt.Errorf("%s not found in PATH: %s", program, install)
	}
	return p, nil
}
