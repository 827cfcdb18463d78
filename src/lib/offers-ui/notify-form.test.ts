import { describe, expect, it } from 'vitest';
import { textOf } from '../forms/document.ts';
import { DEFAULT_NOTIFY_FORM, upgradeLegacyForm } from '../forms/notify.ts';
import { missingFields, shownFields, submittedValues } from './notify-form.ts';

const names = (values: Record<string, string>) => shownFields(DEFAULT_NOTIFY_FORM, values);

describe('notify form (default form)', () => {
  it('shows only Channel until a channel other than Message is chosen', () => {
    expect(names({})).toEqual(['Channel']);
    expect(names({ Channel: 'Message' })).toEqual(['Channel']);
    for (const channel of ['PhoneCall', 'InPerson', 'Other'])
      expect(names({ Channel: channel })).toEqual(['Channel', 'Client_Feedback', 'Comment']);
  });

  it('requires Channel, then Client_Feedback when shown; Comment stays optional', () => {
    expect(missingFields(DEFAULT_NOTIFY_FORM, {})).toEqual(['Channel']);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'Message' })).toEqual([]);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'PhoneCall' })).toEqual(['Client_Feedback']);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'PhoneCall', Client_Feedback: '  ' })).toEqual([
      'Client_Feedback',
    ]);
    expect(missingFields(DEFAULT_NOTIFY_FORM, { Channel: 'InPerson', Client_Feedback: 'Interested' })).toEqual([]);
  });

  it('drops values of hidden fields and empty values from the body', () => {
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, { Channel: 'Message', Client_Feedback: 'Neutral', Comment: 'left over' }),
    ).toEqual({ Channel: 'Message' });
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, { Channel: 'Other', Client_Feedback: 'Neutral', Comment: ' ' }),
    ).toEqual({ Channel: 'Other', Client_Feedback: 'Neutral' });
    expect(
      submittedValues(DEFAULT_NOTIFY_FORM, {
        Channel: 'Other',
        Client_Feedback: 'Neutral',
        Comment: ' Call back in May ',
      }),
    ).toEqual({ Channel: 'Other', Client_Feedback: 'Neutral', Comment: 'Call back in May' });
  });

  it('gives the labels in the page language from the document, and the comment 4 rows', () => {
    expect(textOf(DEFAULT_NOTIFY_FORM.ui.fields.Channel.label, 'fr')).toBe(
      'Comment avez-vous proposé l’offre au client ?',
    );
    expect(textOf(DEFAULT_NOTIFY_FORM.ui.fields.Channel.label, 'en')).toBe(
      'How did you propose the offer to your customer?',
    );
    expect(DEFAULT_NOTIFY_FORM.ui.fields.Comment).toMatchObject({ widget: 'textarea', rows: 4 });
  });

  it('runs a stored form of the old format the same way once upgraded', () => {
    const legacy = upgradeLegacyForm({
      fields: [
        {
          name: 'Channel',
          type: 'radio',
          label: 'Channel',
          required: true,
          options: [
            { value: 'PhoneCall', label: 'Phone' },
            { value: 'Message', label: 'Message' },
          ],
        },
        {
          name: 'Note',
          type: 'text',
          label: 'Note',
          required: true,
          visibleWhen: { field: 'Channel', in: ['PhoneCall'] },
        },
      ],
    });
    expect(shownFields(legacy, { Channel: 'Message' })).toEqual(['Channel']);
    expect(missingFields(legacy, { Channel: 'PhoneCall' })).toEqual(['Note']);
    expect(submittedValues(legacy, { Channel: 'Message', Note: 'x' })).toEqual({ Channel: 'Message' });
  });
});
