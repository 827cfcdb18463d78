import type { Language } from '#lib/i18n/index.ts';
import { IslandProvider } from './ui/provider.tsx';
import { Translations } from './ui/translations.tsx';
import { ReportErrorButton } from './ui/report-error-button.tsx';

/** The "Report error" button of the server-rendered error pages. */
export default function ReportError({
  language,
  status,
  message,
}: {
  language: Language;
  status: number;
  message: string;
}) {
  return (
    <IslandProvider language={language} module="ReportError">
      <Translations>
        <ReportErrorButton status={status} message={`HTTP ${status} - ${message}`} module="ReportError" />
      </Translations>
    </IslandProvider>
  );
}
