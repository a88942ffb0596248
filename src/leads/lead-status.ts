/** The call centre's lead statuses (spec); kept apart from the model so a worker thread can use them without Sequelize. */
export const LEAD_STATUSES = ['new', 'confirmed', 'wrong', 'call_later', 'no_answer', 'duplicate', 'canceled'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
