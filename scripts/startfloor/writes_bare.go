//go:build bare

package main

import "errors"

// errWritesBare refuses -writes in the bare build: its floor writes through
// internal/confined, which a program of the standard library alone does not
// link.
var errWritesBare = errors.New("-writes is not in the build with -tags bare")

type floorWriter struct{}

func newFloorWriter(string, bool) (*floorWriter, error) { return nil, errWritesBare }

func (*floorWriter) write() (string, error) { return "", errWritesBare }
