package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
)

// startCPUProfile starts a CPU profile into file (none if file is empty);
// the function it returns stops it.
func startCPUProfile(file string) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// writeHeapProfile writes the heap profile to file, after a collection so
// that its live figures are current.
func writeHeapProfile(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	runtime.GC()
	err = pprof.WriteHeapProfile(f)
	return errors.Join(err, f.Close())
}
