/** The conformance suite against the reference `MemoryAdapter`: no case may be skipped. */
import { runConformanceSuite } from '../../../conformance/index.js';
import { memoryConformanceTarget } from './conformance-models.js';

runConformanceSuite(memoryConformanceTarget);
