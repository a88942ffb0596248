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

/** Too many requests; `retryAfterSeconds`, when known, becomes the Retry-After header. */
export class RateLimitedError extends AppError {
  constructor(
    message = 'Too Many Attempts.',
    public readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A request that cannot be read at all (a body that is not JSON where JSON is required). */
export class BadRequestError extends AppError {}

/** A route that exists, asked with a method it does not serve. */
export class MethodNotAllowedError extends AppError {
  constructor(message = 'The method is not supported for this route.') {
    super(message);
  }
}

/** Something that existed and is gone for good (an expired export, a used or expired reset link). */
export class GoneError extends AppError {}
