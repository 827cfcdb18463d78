/** The loading overlay's background opacity applies only within 0..1; anything else is clamped. */
export function clampOpacity(value: number | null | undefined): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return 1;
  return Math.min(1, Math.max(0, value));
}
