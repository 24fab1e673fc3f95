package experiment

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
	r := &remoteLoader{prefix: []string{"/usr/bin/ssh", "-l", "admin", "10.0.0.9"}}
	argv := r.command(args...)
	require.Len(t, argv, 5, "the prefix, then the command as one word")
	require.Equal(t, "10.0.0.9", argv[3])
	// What the remote shell does with that word: sh -c.
	out, err := exec.Command("sh", "-c", argv[4]).Output()
	require.NoError(t, err)
	require.Equal(t, strings.Join(args[2:], "\n")+"\n", string(out))

	// Prefixes that exec an argv get it unchanged.
	r = &remoteLoader{prefix: []string{"ip", "netns", "exec", "myssh"}}
	require.Equal(t, append(append([]string(nil), r.prefix...), args...), r.command(args...))
	require.True(t, remoteShell([]string{"gcloud", "compute", "ssh", "vm-1", "--"}))
	require.False(t, remoteShell([]string{"kubectl", "exec", "pod", "--"}))
}
