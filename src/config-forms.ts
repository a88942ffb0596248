import Joi from 'joi';

/** The landing-page form endpoint's budgets (docs/lead-sources.md "Limits", docs/operations.md). */
export const FORM_ENVIRONMENT = {
  FORM_RATE_PER_IP: Joi.number().integer().min(1).default(10),
  FORM_RATE_PER_SOURCE: Joi.number().integer().min(1).default(300),
  INTAKE_LOG_REFUSALS_PER_HOUR: Joi.number().integer().min(1).default(500),
};

export interface FormConfig {
  /** Submissions per minute to one form source from one client address. */
  ratePerIp: number;
  /** Submissions per minute to one form source from all addresses together. */
  ratePerSource: number;
  /**
   * Refusals a source's intake log keeps whole (with the submission) per hour; past it they are counted, one row a
   * minute (src/sources/intake.repository.ts). Forms and shops alike.
   */
  logRefusalsPerHour: number;
}

export const formConfig = (v: Record<string, number>): FormConfig => ({
  ratePerIp: v.FORM_RATE_PER_IP,
  ratePerSource: v.FORM_RATE_PER_SOURCE,
  logRefusalsPerHour: v.INTAKE_LOG_REFUSALS_PER_HOUR,
});
