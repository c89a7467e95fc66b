export * from './fetch-outcome.js';
export * from './effective-policy.js';
export * from './retry-schedule.js';
export * from './run-hold.js';
