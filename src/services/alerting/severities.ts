/**
 * The alert severities, most severe first (the order of the `alert_severity` enum and of the
 * alert rules' table). A module of its own, with nothing else in it, so that a command can offer
 * them as choices without loading the rules.
 */
import type { AlertSeverity } from './alert-rules.js';

export const SEVERITIES = ['critical', 'warning', 'info'] as const satisfies readonly AlertSeverity[];
