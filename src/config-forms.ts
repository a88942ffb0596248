import Joi from 'joi';

/** The landing-page form endpoint's budgets (docs/lead-sources.md "Limits", docs/operations.md). */
export const FORM_ENVIRONMENT = {
  FORM_RATE_PER_IP: Joi.number().integer().min(1).default(10),
  FORM_RATE_PER_SOURCE: Joi.number().integer().min(1).default(300),
};

export interface FormConfig {
  /** Submissions per minute to one form source from one client address. */
  ratePerIp: number;
  /** Submissions per minute to one form source from all addresses together. */
  ratePerSource: number;
}

export const formConfig = (v: Record<string, number>): FormConfig => ({
  ratePerIp: v.FORM_RATE_PER_IP,
  ratePerSource: v.FORM_RATE_PER_SOURCE,
});
