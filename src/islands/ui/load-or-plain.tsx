import { Box, Text } from '@chakra-ui/react';
import { Component, Suspense, type ReactNode } from 'react';

/**
 * Shows `children` (a part loaded on demand with React.lazy), and `plain` while it loads or when it
 * cannot be loaded: the error UI is fetched when an error happens, which is also when the network
 * may be gone, and the error must still be shown.
 */
export class LoadOrPlain extends Component<{ plain: ReactNode; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    if (this.state.failed) return this.props.plain;
    return <Suspense fallback={this.props.plain}>{this.props.children}</Suspense>;
  }
}

/** An error as plain text (status and message) in the error colours, with no translation needed. */
export function PlainError({ status, message }: { status?: number; message: string }) {
  return (
    <Box role="alert" borderWidth="1px" borderColor="border.error" borderRadius="md" p="4" bg="bg.error">
      {status !== undefined ? <Text fontWeight="semibold">{status}</Text> : null}
      <Text whiteSpace="pre-wrap">{message}</Text>
    </Box>
  );
}
