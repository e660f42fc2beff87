package artifacts

import (
	"fmt"
	"testing"

	"github.com/foundryhq/foundry/internal/confined"
)

// TestBatchesOpenAFolderOnce: the artifacts of a folder of a hundred (the
// blackboard of a wave) make one batch, so the folder is opened once, and a
// longer folder is split into batches of at most batchMax.
func TestBatchesOpenAFolderOnce(t *testing.T) {
	t.Parallel()
	r, err := confined.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var inputs []Input
	for i := range 100 {
		inputs = append(inputs, Input{FS: r.FS(), Name: fmt.Sprintf("wave-0/a-%d.json", i)})
	}
	for i := range 2*batchMax + 1 {
		inputs = append(inputs, Input{FS: r.FS(), Name: fmt.Sprintf("wave-1/a-%d.json", i)})
	}
	bs := batches(inputs)
	var sizes []int
	for _, b := range bs {
		sizes = append(sizes, b.end-b.start)
	}
	if want := fmt.Sprint([]int{100, batchMax, batchMax, 1}); fmt.Sprint(sizes) != want {
		t.Errorf("batch sizes %v, want %s", sizes, want)
	}
}
