package blackboard

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/foundryhq/foundry/internal/testenv"
)

// handoff is a valid handoff.v1 artifact.
const handoff = `{"wave":"w1","status":"complete","summary":"done","artifacts":[{"path":"p","description":"z","contract":"finding.v1"}],"gate":{"passed":true,"notes":"n"}}`

// TestWriteFailedTakesBackItsWave: a write that fails once it has made
// the wave's folder (here the file system refuses the artifact's bytes, in
// a child process whose file size limit is 10 bytes, as a full disk
// would) takes the folder back, which would list as a wave of no
// artifacts; a wave that was there stays.
func TestWriteFailedTakesBackItsWave(t *testing.T) {
	if root, ok := testenv.FileSizeLimited(t); ok {
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
	testenv.RunFileSizeLimited(t, 10, root)
	if diff := cmp.Diff(before, listFiles(t, root)); diff != "" {
		t.Errorf("files after two failed writes (-before +after):\n%s", diff)
	}
}
