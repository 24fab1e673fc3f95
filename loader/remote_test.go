package loader

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRemoteCommandQuoting checks that a command behind ssh reaches the
// remote shell as the same words: ssh joins its arguments with spaces,
// and the far side's shell splits them again.
func TestRemoteCommandQuoting(t *testing.T) {
	args := []string{"printf", `%s\n`, "plain", "two words", `it's`, `$HOME`, "a\"b", "", "x;rm -rf /", "back\\slash", "*"}
	r := &Remote{Prefix: []string{"/usr/bin/ssh", "-l", "admin", "10.0.0.9"}}
	argv := r.Command(args...)
	require.Len(t, argv, 5, "the prefix, then the command as one word")
	require.Equal(t, "10.0.0.9", argv[3])
	// What the remote shell does with that word: sh -c.
	out, err := exec.Command("sh", "-c", argv[4]).Output()
	require.NoError(t, err)
	require.Equal(t, strings.Join(args[2:], "\n")+"\n", string(out))

	// Prefixes that exec an argv get it unchanged.
	r = &Remote{Prefix: []string{"ip", "netns", "exec", "myssh"}}
	require.Equal(t, append(append([]string(nil), r.Prefix...), args...), r.Command(args...))
	for _, p := range [][]string{
		{"gcloud", "compute", "ssh", "vm-1", "--"},
		{"gcloud", "--project", "p", "compute", "ssh", "vm-1", "--"},
		{"sudo", "-u", "bench", "ssh", "10.0.0.9"},
		{"env", "SSH_AUTH_SOCK=/tmp/a", "/usr/bin/ssh", "h"},
	} {
		require.True(t, remoteShell(p), "%q", p)
	}
	for _, p := range [][]string{{"kubectl", "exec", "pod", "--"}, {"ip", "netns", "exec", "ssh"}, {"sudo", "ip", "netns", "exec", "n"}, {"docker", "exec", "-i", "c"}, {}} {
		require.False(t, remoteShell(p), "%q", p)
	}
}
