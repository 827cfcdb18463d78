import { AppError } from '#lib/errors/app-error.ts';

/** Awaits a command that must be refused and returns its AppError (anything else fails the test). */
export async function refused(run: Promise<unknown>): Promise<AppError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the command to be refused');
}
