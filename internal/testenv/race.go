//go:build race

package testenv

func init() { Race = true }
