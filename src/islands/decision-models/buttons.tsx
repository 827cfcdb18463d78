import { Button } from '@chakra-ui/react';
import { Trash2 } from 'lucide-react';
import type { ReactNode } from 'react';

/** A small icon button of a row (move, remove), named for screen readers by `label`. */
export function RowButton(props: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  danger?: boolean;
  children: ReactNode;
}) {
  return (
    <Button
      size="xs"
      variant="ghost"
      colorPalette={props.danger ? 'red' : undefined}
      aria-label={props.label}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.children}
    </Button>
  );
}

/** Removes a row, column, bin or case. */
export function RemoveButton(props: { label: string; onClick: () => void }) {
  return (
    <RowButton label={props.label} onClick={props.onClick} danger>
      <Trash2 />
    </RowButton>
  );
}
