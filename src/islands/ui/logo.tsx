/** The product mark, inline so it needs no request and works offline. */
export function Logo({ size = 40 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 40 40" aria-hidden="true" focusable="false">
      <rect width="40" height="40" rx="8" fill="#686EE2" />
      <path d="M13 10h5v15h10v5H13z" fill="#fff" />
    </svg>
  );
}
