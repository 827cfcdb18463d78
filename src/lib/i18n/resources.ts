// Bundled translations, one JSON file per language and namespace. Add a namespace by importing
// its two files here; tests/unit/i18n-completeness.test.ts fails when a key lacks its French text.
import enCommon from './locales/en/common.json' with { type: 'json' };
import frCommon from './locales/fr/common.json' with { type: 'json' };
import enNav from './locales/en/nav.json' with { type: 'json' };
import frNav from './locales/fr/nav.json' with { type: 'json' };
import enErrors from './locales/en/errors.json' with { type: 'json' };
import frErrors from './locales/fr/errors.json' with { type: 'json' };
import enLists from './locales/en/lists.json' with { type: 'json' };
import frLists from './locales/fr/lists.json' with { type: 'json' };

import enAuth from './locales/en/auth.json' with { type: 'json' };
import frAuth from './locales/fr/auth.json' with { type: 'json' };
import enLending from './locales/en/lending.json' with { type: 'json' };
import frLending from './locales/fr/lending.json' with { type: 'json' };
import enFlows from './locales/en/flows.json' with { type: 'json' };
import frFlows from './locales/fr/flows.json' with { type: 'json' };
import enProfile from './locales/en/profile.json' with { type: 'json' };
import frProfile from './locales/fr/profile.json' with { type: 'json' };
import enValidation from './locales/en/validation.json' with { type: 'json' };
import frValidation from './locales/fr/validation.json' with { type: 'json' };
// Administration (issue 11): one namespace per admin area.
import enUsers from './locales/en/users.json' with { type: 'json' };
import frUsers from './locales/fr/users.json' with { type: 'json' };
import enRoles from './locales/en/roles.json' with { type: 'json' };
import frRoles from './locales/fr/roles.json' with { type: 'json' };
import enSecurity from './locales/en/security.json' with { type: 'json' };
import frSecurity from './locales/fr/security.json' with { type: 'json' };
import enSettings from './locales/en/settings.json' with { type: 'json' };
import frSettings from './locales/fr/settings.json' with { type: 'json' };
import enPlatform from './locales/en/platform.json' with { type: 'json' };
import frPlatform from './locales/fr/platform.json' with { type: 'json' };

// Credit decisioning (issue 12).
import enProducts from './locales/en/products.json' with { type: 'json' };
import frProducts from './locales/fr/products.json' with { type: 'json' };
import enModels from './locales/en/models.json' with { type: 'json' };
import frModels from './locales/fr/models.json' with { type: 'json' };
import enDecisions from './locales/en/decisions.json' with { type: 'json' };
import frDecisions from './locales/fr/decisions.json' with { type: 'json' };
import enStrategies from './locales/en/strategies.json' with { type: 'json' };
import frStrategies from './locales/fr/strategies.json' with { type: 'json' };

// Application forms (issue 13).
import enForms from './locales/en/forms.json' with { type: 'json' };
import frForms from './locales/fr/forms.json' with { type: 'json' };
import enAppforms from './locales/en/appforms.json' with { type: 'json' };
import frAppforms from './locales/fr/appforms.json' with { type: 'json' };
import enApply from './locales/en/apply.json' with { type: 'json' };
import frApply from './locales/fr/apply.json' with { type: 'json' };
import enSubmissions from './locales/en/submissions.json' with { type: 'json' };
import frSubmissions from './locales/fr/submissions.json' with { type: 'json' };
import enCustomfields from './locales/en/customfields.json' with { type: 'json' };
import frCustomfields from './locales/fr/customfields.json' with { type: 'json' };

// Team work (issue 14).
import enCollection from './locales/en/collection.json' with { type: 'json' };
import frCollection from './locales/fr/collection.json' with { type: 'json' };
import enTasks from './locales/en/tasks.json' with { type: 'json' };
import frTasks from './locales/fr/tasks.json' with { type: 'json' };
import enConversations from './locales/en/conversations.json' with { type: 'json' };
import frConversations from './locales/fr/conversations.json' with { type: 'json' };
import enBoards from './locales/en/boards.json' with { type: 'json' };
import frBoards from './locales/fr/boards.json' with { type: 'json' };

// Analytics (issue 15).
import enAnalytics from './locales/en/analytics.json' with { type: 'json' };
import frAnalytics from './locales/fr/analytics.json' with { type: 'json' };
import enRisk from './locales/en/risk.json' with { type: 'json' };
import frRisk from './locales/fr/risk.json' with { type: 'json' };
import enPerformance from './locales/en/performance.json' with { type: 'json' };
import frPerformance from './locales/fr/performance.json' with { type: 'json' };
import enDelinquency from './locales/en/delinquency.json' with { type: 'json' };
import frDelinquency from './locales/fr/delinquency.json' with { type: 'json' };
import enQueries from './locales/en/queries.json' with { type: 'json' };
import frQueries from './locales/fr/queries.json' with { type: 'json' };
import enReports from './locales/en/reports.json' with { type: 'json' };
import frReports from './locales/fr/reports.json' with { type: 'json' };

// Integrations and data (issue 16).
import enWebhooks from './locales/en/webhooks.json' with { type: 'json' };
import frWebhooks from './locales/fr/webhooks.json' with { type: 'json' };
import enSinks from './locales/en/sinks.json' with { type: 'json' };
import frSinks from './locales/fr/sinks.json' with { type: 'json' };
import enSchedexports from './locales/en/schedexports.json' with { type: 'json' };
import frSchedexports from './locales/fr/schedexports.json' with { type: 'json' };
import enDataimport from './locales/en/dataimport.json' with { type: 'json' };
import frDataimport from './locales/fr/dataimport.json' with { type: 'json' };
import enDataops from './locales/en/dataops.json' with { type: 'json' };
import frDataops from './locales/fr/dataops.json' with { type: 'json' };
import enDaysoff from './locales/en/daysoff.json' with { type: 'json' };
import frDaysoff from './locales/fr/daysoff.json' with { type: 'json' };

export type Resource = { [key: string]: string | Resource };

export const RESOURCES = {
  en: {
    common: enCommon,
    nav: enNav,
    errors: enErrors,
    lists: enLists,
    auth: enAuth,
    lending: enLending,
    flows: enFlows,
    profile: enProfile,
    validation: enValidation,
    users: enUsers,
    roles: enRoles,
    security: enSecurity,
    settings: enSettings,
    platform: enPlatform,
    products: enProducts,
    models: enModels,
    decisions: enDecisions,
    strategies: enStrategies,
    forms: enForms,
    appforms: enAppforms,
    apply: enApply,
    submissions: enSubmissions,
    customfields: enCustomfields,
    collection: enCollection,
    tasks: enTasks,
    conversations: enConversations,
    boards: enBoards,
    analytics: enAnalytics,
    risk: enRisk,
    performance: enPerformance,
    delinquency: enDelinquency,
    queries: enQueries,
    reports: enReports,
    webhooks: enWebhooks,
    sinks: enSinks,
    schedexports: enSchedexports,
    dataimport: enDataimport,
    dataops: enDataops,
    daysoff: enDaysoff,
  },
  fr: {
    common: frCommon,
    nav: frNav,
    errors: frErrors,
    lists: frLists,
    auth: frAuth,
    lending: frLending,
    flows: frFlows,
    profile: frProfile,
    validation: frValidation,
    users: frUsers,
    roles: frRoles,
    security: frSecurity,
    settings: frSettings,
    platform: frPlatform,
    products: frProducts,
    models: frModels,
    decisions: frDecisions,
    strategies: frStrategies,
    forms: frForms,
    appforms: frAppforms,
    apply: frApply,
    submissions: frSubmissions,
    customfields: frCustomfields,
    collection: frCollection,
    tasks: frTasks,
    conversations: frConversations,
    boards: frBoards,
    analytics: frAnalytics,
    risk: frRisk,
    performance: frPerformance,
    delinquency: frDelinquency,
    queries: frQueries,
    reports: frReports,
    webhooks: frWebhooks,
    sinks: frSinks,
    schedexports: frSchedexports,
    dataimport: frDataimport,
    dataops: frDataops,
    daysoff: frDaysoff,
  },
} satisfies Record<string, Record<string, Resource>>;

export type Namespace = keyof (typeof RESOURCES)['en'];
