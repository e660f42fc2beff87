package doctor_test

import (
	"testing"

	"github.com/foundryhq/foundry/doctor"
	"github.com/foundryhq/foundry/project"
)

// TestLockUnderLoosenedContract: a project whose artifacts were accepted
// under finding.v1 before it was reduced to seed 004's keyword subset (a
// change that only loosens) passes the lock check after the upgrade.
func TestLockUnderLoosenedContract(t *testing.T) {
	t.Parallel()
	dir := cleanProject(t)
	const before = "sha256:c78cb92c88da6279358f234eaa5f1bf6fec2fd6250548c6006140c09cd7cad6e" // finding.v1 with uniqueItems
	writeFiles(t, dir, map[string]string{".foundry/contracts.lock/finding.v1": before + "\n"})
	rep := runDoctor(t, dir, project.Source{}, false)
	for _, f := range rep.Findings {
		if f.Check == doctor.CheckContractsLock {
			t.Errorf("lock finding: %+v", f)
		}
	}
}
