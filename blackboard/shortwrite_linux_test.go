package blackboard

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// handoff is a valid handoff.v1 artifact.
const handoff = `{"wave":"w1","status":"complete","summary":"done","artifacts":[{"path":"p","description":"z","contract":"finding.v1"}],"gate":{"passed":true,"notes":"n"}}`

// TestWriteFailedTakesBackItsWave: a write that fails once it has made
// the wave's folder (here the file system refuses the artifact's bytes, in
// a child process whose file size limit is 10 bytes, as a full disk
// would) takes the folder back, which would list as a wave of no
// artifacts; a wave that was there stays.
func TestWriteFailedTakesBackItsWave(t *testing.T) {
	if root := os.Getenv("FOUNDRY_TEST_FAILED_WAVE"); root != "" {
		signal.Ignore(syscall.SIGXFSZ) // the write past the limit fails with EFBIG instead
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 10, Max: 10}); err != nil {
			t.Skipf("setrlimit: %v", err)
		}
		b := openBoard(root, nil)
		for _, wave := range []string{"new", "old"} {
			if _, err := b.Write(context.Background(), WriteRequest{Wave: wave, Agent: "a2", Schema: "handoff.v1", Data: []byte(handoff)}); err == nil {
				t.Errorf("write to wave %s past the file size limit succeeded", wave)
			}
		}
		return
	}
	t.Parallel()
	root := newProject(t)
	// The contract's lock entry and the wave "old" exist before the limit.
	if _, err := openBoard(root, nil).Write(context.Background(), WriteRequest{Wave: "old", Agent: "a1", Schema: "handoff.v1", Data: []byte(handoff)}); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, root)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFailedTakesBackItsWave$")
	cmd.Env = append(os.Environ(), "FOUNDRY_TEST_FAILED_WAVE="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
		t.Errorf("files after two failed writes (-before +after):\n%s", diff)
	}
}
