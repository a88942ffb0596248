/**
 * The one form an email is stored, looked up and throttled under (trimmed, lower case): the login throttle's key must
 * be exactly what the login checks, or tries could be counted under one spelling and checked under another.
 */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
