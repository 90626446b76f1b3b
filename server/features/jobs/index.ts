/**
 * What the rest of the gateway uses of jobs: the service and its DTO (the
 * Control API's fixtures create jobs and return them), the job kinds and
 * states (the Control API's schemas), and what the composition root wires
 * together: the repository, the runners and the import budget. Everything
 * else of this folder is its own (the dependency rules keep it so).
 */
export { jobDto, JobsService } from './service.ts';
export { JOB_KINDS, JOB_STATES } from './states.ts';
export { JobsRepo } from './repo.ts';
export { createJobRunners } from './runners.ts';
export { DEFAULT_IMPORT_LIMITS, ImportBudget, type ImportLimits } from './imports/budget.ts';
