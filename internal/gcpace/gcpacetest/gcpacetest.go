// Package gcpacetest reads the process's garbage-collection pacing for the
// tests of package gcpace and of its users. Only test code imports it.
package gcpacetest

import "runtime/metrics"

// Percent returns the GC percent in force (-1 when collection is off). It
// reads it without setting it: reading it through debug.SetGCPercent,
// setting it and back, would race with a pause beginning or ending.
func Percent() int {
	m := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(m)
	return int(m[0].Value.Uint64())
}
