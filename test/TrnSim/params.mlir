// The named parameter sets of axe-trn-sim (docs/TrnSim.md, "Parameters").
// RUN: axe-trn-sim %s --list-params | FileCheck %s --check-prefix=CAL
// RUN: axe-trn-sim %s --params=calibrated --list-params | FileCheck %s --check-prefix=CAL
// RUN: axe-trn-sim %s --params=documented --list-params | FileCheck %s --check-prefix=DOC
// RUN: axe-trn-sim %s --params=documented --param dma_desc_ns=5 --list-params | FileCheck %s --check-prefix=OVER
// RUN: not axe-trn-sim %s --params=fitted --list-params 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: axe-trn-sim %s --timing-only --params=documented --report=%t.doc.json
// RUN: FileCheck %s --check-prefix=DOCTIME < %t.doc.json
// RUN: axe-trn-sim %s --timing-only --report=%t.cal.json
// RUN: FileCheck %s --check-prefix=CALTIME < %t.cal.json

// The default is the calibrated machine (examples/trn/nki/calibrate.py).
// CAL: dma_engine_bw {{ *}}27.2
// CAL: dma_desc_ns {{ *}}73.85
// CAL: dma_queue_desc_ns {{ *}}150.2
// CAL: dma_fixed_ns {{ *}}1300
// CAL: hbm_bw {{ *}}410

// The documented set: the table's 17 B/ns an engine, no per-descriptor or
// per-queue cost; everything else as calibrated.
// DOC: sem_ns {{ *}}50
// DOC: dma_engine_bw {{ *}}17
// DOC: dma_desc_ns {{ *}}0
// DOC: dma_queue_desc_ns {{ *}}0
// DOC: dma_fixed_ns {{ *}}1300

// --param applies on top of the set.
// OVER: dma_engine_bw {{ *}}17
// OVER: dma_desc_ns {{ *}}5

// BAD: axe-trn-sim: unknown parameter set 'fitted' (expected calibrated or documented)

// One 128 x 512 bf16 load (1 KiB rows). Documented: 8 KiB per engine at
// 17 B/ns, 481.882 ns, seen 1300 ns later. Calibrated: the queue's 8
// descriptors at 150.2 ns bound it, 1201.6 ns, then 1300.
// DOCTIME: "total_ns": 1781.882352941
// CALTIME: "total_ns": {{2501.6$|2501.5999}}
func.func @load(%h: memref<128x512xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %h to %s
      : memref<128x512xbf16, #trn.space<hbm>> to memref<128x512xbf16, #trn.space<sbuf>>
  return
}
