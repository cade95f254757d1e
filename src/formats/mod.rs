//! Readers of latency result files, detected from their content: rtlat and cyclictest JSON,
//! cyclictest `-h` histogram text, jitterdebugger `results.json`, Xenomai `latency` output
//! and its `-g` gnuplot file. (Filled in by the reports issue.)
