/** Errors typed by meaning; api/ and admin/ map them to their own answers in one table each. */
export class AppError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Field errors keyed by dotted path into the request body, e.g. `leads.12.products.0.sku`. */
export type FieldErrors = Record<string, string[]>;

export class ValidationError extends AppError {
  constructor(
    public readonly errors: FieldErrors,
    message?: string,
  ) {
    super(message ?? ValidationError.summary(errors));
  }

  static summary(errors: FieldErrors): string {
    const all = Object.values(errors).flat();
    if (all.length === 0) return 'The given data was invalid.';
    return all.length > 1 ? `${all[0]} (and ${all.length - 1} more error${all.length > 2 ? 's' : ''})` : all[0];
  }

  static single(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found.') {
    super(message);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Unauthenticated.') {
    super(message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'This action is unauthorized.') {
    super(message);
  }
}

export class ConflictError extends AppError {}

export class RateLimitedError extends AppError {
  constructor(
    public readonly retryAfterSeconds: number,
    message = 'Too Many Attempts.',
  ) {
    super(message);
  }
}
